; Ruby structure query (capture names: ragstrata/ingest/code/rules.py)

(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
(assignment left: (constant) @name) @definition.constant

(class superclass: (superclass (_) @inherits))
((call
   method: (identifier) @_mixin
   arguments: (argument_list [(constant) (scope_resolution)] @implements))
 (#any-of? @_mixin "include" "extend" "prepend"))

(call receiver: (_) @call.receiver method: (_) @call.name) @call
(call !receiver method: (_) @call.name) @call

((call
   method: (identifier) @_require
   arguments: (argument_list (string (string_content) @import.name))) @import
 (#any-of? @_require "require" "require_relative" "load"))
