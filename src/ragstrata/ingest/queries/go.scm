; Go structure query (capture names: ragstrata/ingest/code/rules.py)

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type_alias
(method_elem name: (field_identifier) @name) @definition.function
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(field_declaration_list
  (field_declaration
    !name
    type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @inherits))
(interface_type (type_elem [(type_identifier) (qualified_type)] @inherits))

(call_expression function: (_) @call.name) @call

; uses of types that are not calls: a construction ``T{}`` / ``pkg.T{}`` (``@construct``) and
; the types a declaration names (``@reference``: parameters, results, variables, named fields)
(composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @construct.name) @construct
(composite_literal type: (slice_type element: [(type_identifier) (qualified_type)] @construct.name)) @construct
(function_declaration parameters: (parameter_list [(parameter_declaration type: (_) @reference)
                                                   (variadic_parameter_declaration type: (_) @reference)]))
(method_declaration parameters: (parameter_list [(parameter_declaration type: (_) @reference)
                                                 (variadic_parameter_declaration type: (_) @reference)]))
(function_declaration result: (_) @reference)
(method_declaration result: (_) @reference)
(var_spec type: (_) @reference)
(field_declaration name: (_) type: (_) @reference)

(import_spec path: (_) @import.name) @import

; local names and their types, for call receivers (``@bind.type`` a type, ``@bind.value`` the
; function whose result is bound, neither: a local of unknown type)
(parameter_declaration name: (identifier) @bind.name type: (_) @bind.type) @bind
(variadic_parameter_declaration name: (identifier) @bind.name) @bind
(var_spec name: (identifier) @bind.name type: (_) @bind.type) @bind
(var_spec name: (identifier) @bind.name) @bind
(short_var_declaration
  left: (expression_list . (identifier) @bind.name .)
  right: (expression_list . [(composite_literal type: (_) @bind.type)
                             (unary_expression operand: (composite_literal type: (_) @bind.type))] .)) @bind
(short_var_declaration
  left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (call_expression function: (_) @bind.value))) @bind
(short_var_declaration left: (expression_list (identifier) @bind.name)) @bind
(range_clause left: (expression_list (identifier) @bind.name)) @bind
(type_switch_statement (expression_list (identifier) @bind.name)) @bind
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @bind.name type: (_) @bind.type))) @bind
(field_declaration_list (field_declaration name: (field_identifier) @bind.member type: (_) @bind.type)) @bind
