; PHP structure query (capture names: ragstrata/ingest/code/rules.py)

(namespace_definition name: (_) @package)

(class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(trait_declaration name: (_) @name) @definition.trait
(enum_declaration name: (_) @name) @definition.enum
(function_definition name: (_) @name) @definition.function
(method_declaration name: (_) @name) @definition.function
(const_declaration (const_element (name) @name)) @definition.constant

(base_clause (_) @inherits)
(class_interface_clause (_) @implements)
(use_declaration (_) @implements)

(function_call_expression function: (_) @call.name) @call
(member_call_expression object: (_) @call.receiver name: (_) @call.name) @call
(nullsafe_member_call_expression object: (_) @call.receiver name: (_) @call.name) @call
(scoped_call_expression scope: (_) @call.scope name: (_) @call.name) @call
(object_creation_expression [(name) (qualified_name)] @call.name) @call

(namespace_use_clause . [(qualified_name) (name)] @import.name) @import
