; Rust structure query (capture names: ragstrata/ingest/code/rules.py)

(struct_item name: (_) @name) @definition.struct
(enum_item name: (_) @name) @definition.enum
(union_item name: (_) @name) @definition.union
(trait_item name: (_) @name) @definition.trait
(type_item name: (_) @name) @definition.type_alias
(const_item name: (_) @name) @definition.constant
(static_item name: (_) @name) @definition.constant
(mod_item name: (_) @name) @definition.module
(function_item name: (_) @name) @definition.function
(function_signature_item name: (_) @name) @definition.function
(macro_definition name: (_) @name) @definition.macro

(impl_item type: (_) @name) @scope.impl
(impl_item trait: (_) @implements)
(trait_item bounds: (trait_bounds (_) @inherits))

(call_expression function: (_) @call.name) @call
(macro_invocation macro: (_) @call.name) @call

(use_declaration argument: (_) @import.name) @import
