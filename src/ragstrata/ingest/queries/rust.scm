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

; uses of types that are not calls: a construction ``T { .. }`` (``@construct``) and the types a
; declaration names (``@reference``: parameters, return types, fields, typed lets)
(struct_expression name: (_) @construct.name) @construct
(function_item parameters: (parameters (parameter type: (_) @reference)))
(function_item return_type: (_) @reference)
(function_signature_item parameters: (parameters (parameter type: (_) @reference)))
(function_signature_item return_type: (_) @reference)
(field_declaration type: (_) @reference)
(let_declaration type: (_) @reference)

(use_declaration argument: (_) @import.name) @import

; local names and their types, for call receivers (``@bind.type`` a type, ``@bind.value`` the
; function whose result is bound, ``@bind.member`` a struct field, else unknown type)
(parameter pattern: (identifier) @bind.name type: (_) @bind.type) @bind
(closure_parameters (identifier) @bind.name) @bind
(closure_parameters (parameter pattern: (identifier) @bind.name type: (_) @bind.type)) @bind
(let_declaration pattern: (identifier) @bind.name type: (_) @bind.type) @bind
(let_declaration pattern: (identifier) @bind.name value: (struct_expression name: (_) @bind.type)) @bind
(let_declaration pattern: (identifier) @bind.name value: (call_expression function: (_) @bind.value)) @bind
(let_declaration pattern: (identifier) @bind.name) @bind
(let_declaration pattern: (_ (identifier) @bind.name)) @bind
(for_expression pattern: (identifier) @bind.name) @bind
(for_expression pattern: (_ (identifier) @bind.name)) @bind
(let_condition pattern: (_ (identifier) @bind.name)) @bind
(match_arm pattern: (match_pattern (_ (identifier) @bind.name))) @bind
(field_declaration_list (field_declaration name: (field_identifier) @bind.member type: (_) @bind.type)) @bind
; a tuple struct's fields, named by their position (``self.0`` of ``struct Shlex(bytes::Shlex)``)
(ordered_field_declaration_list type: (_) @bind.type) @bind @bind.tuple
