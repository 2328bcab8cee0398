; C structure query (capture names: ragstrata/ingest/code/rules.py)

(function_definition
  declarator: (function_declarator declarator: (_) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (_) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (_) @name)))) @definition.function
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.union
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type_alias
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (_) @call.name) @call

(preproc_include path: (_) @import.name) @import

; prototypes at file level, include guards too (the API of a header)
(translation_unit
  (declaration
    declarator: [(function_declarator declarator: (identifier) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (identifier) @name))])
  @definition.function)
(preproc_ifdef
  (declaration
    declarator: [(function_declarator declarator: (identifier) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (identifier) @name))])
  @definition.function)
(preproc_if
  (declaration
    declarator: [(function_declarator declarator: (identifier) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (identifier) @name))])
  @definition.function)
(preproc_else
  (declaration
    declarator: [(function_declarator declarator: (identifier) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (identifier) @name))])
  @definition.function)
