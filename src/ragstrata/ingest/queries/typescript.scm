; TypeScript / TSX structure query (capture names: ragstrata/ingest/code/rules.py)

(class_declaration name: (_) @name) @definition.class
(abstract_class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type_alias
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(function_signature name: (_) @name) @definition.function
(method_definition name: (_) @name) @definition.function
; a named function handed to a call: morgan.token('url', function getUrlToken (req) {...}),
; app.use(function logger (req, res, next) {...})
(arguments (function_expression name: (identifier) @name) @definition.function)
; a named function in a list (`transformResponse: [function transformResponse(data) {...}]`)
; or returned by a factory (`return function corsMiddleware(req, res, next) {...}`)
(array (function_expression name: (identifier) @name) @definition.function)
(return_statement (function_expression name: (identifier) @name) @definition.function)
(method_signature name: (_) @name) @definition.function
(abstract_method_signature name: (_) @name) @definition.function

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(pair
  key: [(property_identifier) (string) (identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; CommonJS exports of any value: `exports.json = bodyParser.json` (functions: above)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (_) @_exports
        property: (property_identifier) @name)
      right: (_) @_value) @definition.variable)
  (#match? @_exports "^(module\\.)?exports$"))
; an alias in a chain: `res.set = res.header = function header() {...}` (the left name; the
; function itself is the inner assignment)
(assignment_expression
  left: (member_expression property: (property_identifier) @name) @definition.function
  right: (assignment_expression
    right: [(arrow_function) (function_expression) (generator_function)]))
; members added by a call: Object.defineProperty(obj, 'name', d), defineGetter(obj, 'name', fn)
(call_expression
  function: [(identifier) @_fn (member_expression property: (property_identifier) @_fn)]
  arguments: (arguments . (_) . (string (string_fragment) @name))
  (#match? @_fn "^(defineProperty|defineGetter|defineSetter|__defineGetter__|__defineSetter__)$")) @definition.property
; delegation: delegate(proto, 'response').method('redirect').access('body') (the rules keep
; only chains that start with `delegate`)
(call_expression
  function: (member_expression property: (property_identifier) @_m)
  arguments: (arguments . (string (string_fragment) @name) .) @definition.property
  (#match? @_m "^(method|access|getter|setter|fluent)$"))

(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)
   (export_statement
     declaration: (lexical_declaration
       (variable_declarator name: (identifier) @name) @definition.constant))]
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(extends_clause value: (_) @inherits)
(implements_clause (_) @implements)
(extends_type_clause type: (_) @inherits)

(call_expression function: (_) @call.name) @call
(new_expression constructor: (_) @call.name) @call

; the types a declaration names (``@reference``: parameters, results, fields, variables)
(type_annotation (_) @reference)

(import_statement source: (string) @import.name) @import
(export_statement source: (string) @import.name) @import
((call_expression
   function: (identifier) @_require
   arguments: (arguments . (string) @import.name)) @import
 (#eq? @_require "require"))

; local names and their types, for call receivers (``@bind.type`` a declared or constructed
; type, ``@bind.value`` the function whose result is bound, ``@bind.member`` a class field)
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(required_parameter pattern: (identifier) @bind.name) @bind
(optional_parameter pattern: (identifier) @bind.name) @bind
(required_parameter pattern: (_ (identifier) @bind.name)) @bind
(required_parameter pattern: (_ (shorthand_property_identifier_pattern) @bind.name)) @bind
(arrow_function parameter: (identifier) @bind.name) @bind
(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type)) @bind
(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: (_) @bind.type)) @bind
(variable_declarator name: (identifier) @bind.name value: (call_expression function: (_) @bind.value)) @bind
(variable_declarator name: (identifier) @bind.name) @bind
(variable_declarator name: (_ (identifier) @bind.name)) @bind
(variable_declarator name: (_ (shorthand_property_identifier_pattern) @bind.name)) @bind
(for_in_statement left: (identifier) @bind.name) @bind
(catch_clause parameter: (identifier) @bind.name) @bind
(public_field_definition name: (property_identifier) @bind.member type: (type_annotation (_) @bind.type)) @bind
(public_field_definition name: (property_identifier) @bind.member value: (new_expression constructor: (_) @bind.type)) @bind
