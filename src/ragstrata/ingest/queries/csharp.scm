; C# structure query (capture names: ragstrata/ingest/code/rules.py)

(file_scoped_namespace_declaration name: (_) @package)
(namespace_declaration name: (_) @name) @scope.namespace

(class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(struct_declaration name: (_) @name) @definition.struct
(enum_declaration name: (_) @name) @definition.enum
(record_declaration name: (_) @name) @definition.record
(delegate_declaration name: (_) @name) @definition.type_alias
(method_declaration name: (_) @name) @definition.function
(constructor_declaration name: (_) @name) @definition.function
(property_declaration name: (_) @name) @definition.property
((field_declaration
   (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
 (#match? @name "^[A-Z][A-Z0-9_]*$"))

((base_list [(identifier) (qualified_name) (generic_name)] @implements)
 (#match? @implements "^I[A-Z]"))
((base_list [(identifier) (qualified_name) (generic_name)] @inherits)
 (#not-match? @inherits "^I[A-Z]"))

(invocation_expression function: (_) @call.name) @call
(object_creation_expression type: (_) @call.name) @call

(using_directive [(identifier) (qualified_name)] @import.name) @import
