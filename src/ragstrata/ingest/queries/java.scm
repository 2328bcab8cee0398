; Java structure query (capture names: ragstrata/ingest/code/rules.py)

(package_declaration [(identifier) (scoped_identifier)] @package)

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function
((field_declaration
   declarator: (variable_declarator name: (identifier) @name)) @definition.constant
 (#match? @name "^[A-Z][A-Z0-9_]*$"))

(superclass (_) @inherits)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @inherits))

(method_invocation) @call @call.name
(object_creation_expression type: (_) @call.name) @call

; the types a declaration names (``@reference``: parameters, results, fields, locals)
(formal_parameter type: (_) @reference)
(method_declaration type: (_) @reference)
(field_declaration type: (_) @reference)
(local_variable_declaration type: (_) @reference)

(import_declaration [(identifier) (scoped_identifier)] @import.name) @import

; local names and their types, for call receivers (``@bind.type`` a declared type; fields are
; names of the class, ``@bind.value`` for ``var x = f()``)
(formal_parameter type: (_) @bind.type name: (identifier) @bind.name) @bind
(spread_parameter (_) @bind.type (variable_declarator name: (identifier) @bind.name)) @bind
(catch_formal_parameter (catch_type) @bind.type name: (identifier) @bind.name) @bind
((local_variable_declaration type: (_) @bind.type
   declarator: (variable_declarator name: (identifier) @bind.name)) @bind
 (#not-eq? @bind.type "var"))
(local_variable_declaration
   declarator: (variable_declarator name: (identifier) @bind.name
                                    value: (object_creation_expression type: (_) @bind.type))) @bind
(local_variable_declaration declarator: (variable_declarator name: (identifier) @bind.name)) @bind
(field_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.name)) @bind
(enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.name) @bind
(lambda_expression parameters: (identifier) @bind.name) @bind
(lambda_expression parameters: (inferred_parameters (identifier) @bind.name)) @bind
(resource type: (_) @bind.type name: (identifier) @bind.name) @bind
