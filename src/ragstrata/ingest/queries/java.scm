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

(import_declaration [(identifier) (scoped_identifier)] @import.name) @import
