; Kotlin structure query (capture names: ragstrata/ingest/code/rules.py)

(package_header (qualified_identifier) @package)

(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.object
(function_declaration name: (_) @name) @definition.function
(type_alias type: (_) @name) @definition.type_alias
((property_declaration (variable_declaration (identifier) @name)) @definition.constant
 (#match? @name "^[A-Z][A-Z0-9_]*$"))

(delegation_specifier (constructor_invocation (user_type) @inherits))
(delegation_specifier (user_type) @implements)

(call_expression . [(identifier) (navigation_expression)] @call.name) @call

(import (qualified_identifier) @import.name) @import
