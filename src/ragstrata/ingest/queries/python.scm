; Python structure query (see ragstrata/ingest/code/rules.py for the capture names)

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(type_alias_statement left: (type (identifier) @name)) @definition.type_alias

(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @inherits))
(class_definition
  superclasses: (argument_list (subscript value: (_) @inherits)))

(call function: (_) @call.name) @call

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
