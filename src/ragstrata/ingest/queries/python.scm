; Python structure query (see ragstrata/ingest/code/rules.py for the capture names)

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(type_alias_statement left: (type (identifier) @name)) @definition.type_alias

(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @inherits))
(class_definition
  superclasses: (argument_list (subscript value: (_) @inherits)))

(call function: (_) @call.name) @call

; the types an annotation names (``@reference``: parameters and results)
(typed_parameter type: (_) @reference)
(typed_default_parameter type: (_) @reference)
(function_definition return_type: (_) @reference)

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; local names and their types, for call receivers (``@bind.type`` a type, ``@bind.value`` the
; callable whose result is bound, ``@bind.member`` a ``self.x`` attribute, else unknown type)
(typed_parameter (identifier) @bind.name type: (type) @bind.type) @bind
(typed_default_parameter name: (identifier) @bind.name type: (type) @bind.type) @bind
(parameters (identifier) @bind.name) @bind
(lambda_parameters (identifier) @bind.name) @bind
(default_parameter name: (identifier) @bind.name) @bind
(list_splat_pattern (identifier) @bind.name) @bind
(dictionary_splat_pattern (identifier) @bind.name) @bind
(assignment left: (identifier) @bind.name type: (type) @bind.type) @bind
(assignment left: (identifier) @bind.name right: (call function: [(identifier) (attribute)] @bind.value)) @bind
(assignment left: (identifier) @bind.name) @bind
(assignment left: (pattern_list (identifier) @bind.name)) @bind
(assignment left: (tuple_pattern (identifier) @bind.name)) @bind
(augmented_assignment left: (identifier) @bind.name) @bind
(for_statement left: (identifier) @bind.name) @bind
(for_statement left: (pattern_list (identifier) @bind.name)) @bind
(for_in_clause left: (identifier) @bind.name) @bind
(for_in_clause left: (pattern_list (identifier) @bind.name)) @bind
(as_pattern alias: (as_pattern_target (identifier) @bind.name)) @bind
(except_clause (as_pattern alias: (as_pattern_target (identifier) @bind.name))) @bind
(named_expression name: (identifier) @bind.name) @bind
(global_statement (identifier) @bind.global) @bind
(nonlocal_statement (identifier) @bind.global) @bind
((assignment
   left: (attribute object: (identifier) @_self attribute: (identifier) @bind.member)
   right: (call function: [(identifier) (attribute)] @bind.value)) @bind
 (#eq? @_self "self"))
((assignment
   left: (attribute object: (identifier) @_self attribute: (identifier) @bind.member)
   type: (type) @bind.type) @bind
 (#eq? @_self "self"))
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.member)) @bind
 (#eq? @_self "self"))
