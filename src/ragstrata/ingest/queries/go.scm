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

(field_declaration_list
  (field_declaration
    !name
    type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @inherits))
(interface_type (type_elem [(type_identifier) (qualified_type)] @inherits))

(call_expression function: (_) @call.name) @call

(import_spec path: (_) @import.name) @import
