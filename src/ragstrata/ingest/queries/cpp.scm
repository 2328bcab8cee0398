; C++ structure query (capture names: ragstrata/ingest/code/rules.py)

(namespace_definition name: (_) @name) @scope.namespace

(function_definition
  declarator: (function_declarator declarator: (_) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (_) @name))) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (_) @name))) @definition.function
(field_declaration_list
  (field_declaration
    declarator: (function_declarator declarator: (_) @name)) @definition.function)
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.union
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type_alias
(alias_declaration name: (_) @name) @definition.type_alias
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro

(base_class_clause
  [(type_identifier) (qualified_identifier) (template_type)] @inherits)

(call_expression function: (_) @call.name) @call
(new_expression type: (_) @call.name) @call

(preproc_include path: (_) @import.name) @import
(using_declaration (_) @import.name) @import

; prototypes at file / namespace level, include guards too (the API of a header)
(translation_unit
  (declaration
    declarator: [(function_declarator declarator: (_) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (_) @name))
                 (reference_declarator
                   (function_declarator declarator: (_) @name))])
  @definition.function)
(preproc_ifdef
  (declaration
    declarator: [(function_declarator declarator: (_) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (_) @name))
                 (reference_declarator
                   (function_declarator declarator: (_) @name))])
  @definition.function)
(preproc_if
  (declaration
    declarator: [(function_declarator declarator: (_) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (_) @name))
                 (reference_declarator
                   (function_declarator declarator: (_) @name))])
  @definition.function)
(preproc_else
  (declaration
    declarator: [(function_declarator declarator: (_) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (_) @name))
                 (reference_declarator
                   (function_declarator declarator: (_) @name))])
  @definition.function)
(declaration_list
  (declaration
    declarator: [(function_declarator declarator: (_) @name)
                 (pointer_declarator
                   declarator: (function_declarator declarator: (_) @name))
                 (reference_declarator
                   (function_declarator declarator: (_) @name))])
  @definition.function)
