"""Doc comments attached to definitions in every supported language, in real-world shapes:
attributes, decorators and annotations between the doc and the item, blank lines, ``export``,
directives, trailing comments of the line above, members added by assignment or delegation."""

from __future__ import annotations

import hashlib

from ragstrata.answer.docs.doccomment import parse_doc
from ragstrata.core.rows import DefinitionRow, SourceFile
from ragstrata.ingest.code import extract_code


def _defs(language: str, path: str, text: str) -> dict[str, DefinitionRow]:
    raw = text.encode("utf-8")
    file = SourceFile(
        path=path,
        language=language,
        is_test=False,
        is_doc=False,
        size=len(raw),
        mtime_ns=0,
        sha256=hashlib.sha256(raw).hexdigest(),
        text=text,
    )
    return {r.symbol: r for r in extract_code(file) if isinstance(r, DefinitionRow)}


RUST = """\
//! Crate overview, not the doc of the first item.

use std::io;

/// A directory entry.
///
/// Yielded by the iterators of this crate.
#[derive(Clone, Debug)]
#[cfg(unix)]
pub struct DirEntry {
    depth: usize,
}

impl DirEntry {
    /// The depth of this entry.
    #[inline]
    pub fn depth(&self) -> usize {
        self.depth
    }
    // a note about the method above, not a doc

    pub fn ino(&self) -> u64 { 0 } // trailing comment

    pub fn path(&self) {}
}

// A plain comment is not rustdoc.
/// Walk a directory.
#[must_use]
#[inline(always)]
pub fn walk() {}

//// Four slashes: a plain comment.
pub fn four() {}
"""


def test_rust_docs_above_attributes_and_no_plain_comments():
    d = _defs("rust", "src/dent.rs", RUST)
    assert d["crate::dent::DirEntry"].docstring == (
        "A directory entry.\n\nYielded by the iterators of this crate."
    )
    assert d["crate::dent::DirEntry"].decorators == ("derive(Clone, Debug)", "cfg(unix)")
    assert d["crate::dent::DirEntry::depth"].docstring == "The depth of this entry."
    assert d["crate::dent::DirEntry::ino"].docstring is None  # the `//` note after `depth`
    assert d["crate::dent::DirEntry::path"].docstring is None  # the trailing comment above
    assert d["crate::dent::walk"].docstring == "Walk a directory."
    assert d["crate::dent::four"].docstring is None


JS = """\
/*!
 * express
 * MIT Licensed
 */

'use strict';

/**
 * Module dependencies.
 * @private
 */

var http = require('http');

/**
 * Response prototype.
 * @public
 */

var res = Object.create(http.ServerResponse.prototype);

module.exports = res;

/**
 * Set the HTTP status `code`.
 *
 * @param {Number} code
 * @return {ServerResponse}
 * @public
 */

res.status = function status(code) {
  this.statusCode = code;
  return this;
};

/**
 * Internal helper.
 * @private
 */

res.helper = function helper() {};

/**
 * Return the protocol string.
 * @public
 */

defineGetter(res, 'protocol', function protocol() {
  return 'http';
});

delegate(res, 'socket')
  .method('setTimeout')
  .access('remoteAddress');

/**
 * The locals of the response.
 */

Object.defineProperty(res, 'locals', {
  get: function () { return {}; }
});

var other = {
  /**
   * Not exported: `other` is a local object.
   */
  run: function () {},
};

var proto = module.exports.proto = {
  /**
   * Inspect implementation.
   * @api public
   */
  inspect() { return this; },

  /**
   * Return JSON.
   */
  toJSON: function () { return {}; },
};
"""


def test_javascript_jsdoc_on_assigned_members_delegation_and_object_literals():
    d = _defs("javascript", "lib/response.js", JS)
    status = d["lib/response.status"]
    assert status.is_exported
    doc = parse_doc(status.docstring)
    assert doc.description == "Set the HTTP status `code`."
    assert doc.params == (("code", "(Number)"),)
    assert not d["lib/response.helper"].is_exported  # @private
    protocol = d["lib/response.protocol"]
    assert (protocol.kind, protocol.is_exported) == ("property", True)
    assert protocol.docstring.startswith("Return the protocol string.")
    timeout = d["lib/response.setTimeout"]
    assert (timeout.kind, timeout.is_exported) == ("function", True)
    assert timeout.signature == "delegate(res, 'socket').method('setTimeout')"
    assert d["lib/response.remoteAddress"].kind == "property"
    locals = d["lib/response.locals"]
    assert (locals.kind, locals.is_exported, locals.docstring) == (
        "property",
        True,
        "The locals of the response.",
    )
    assert not d["lib/response.locals.get"].is_exported  # the descriptor's getter
    assert not d["lib/response.run"].is_exported
    assert d["lib/response.inspect"].is_exported and d["lib/response.toJSON"].is_exported
    assert d["lib/response.toJSON"].docstring == "Return JSON."
    # no definition is documented by the module's "Module dependencies." comment
    assert not any("Module dependencies" in (r.docstring or "") for r in d.values())


def test_javascript_module_overview_is_not_the_require_block_comment():
    from ragstrata.answer.docs.moduledoc import module_doc

    assert module_doc(JS, "javascript") is None
    without_licence = JS.split("'use strict';\n\n", 1)[1]  # starts at "Module dependencies."
    assert module_doc(without_licence, "javascript") is None
    tagged = "/**\n * @fileoverview Response helpers.\n */\n\nvar http = require('http');\n"
    found = module_doc(tagged, "javascript")
    assert found is not None and found.text == "Response helpers."


TS = """\
/**
 * An HTTP client.
 * @public
 */
@Injectable()
export class Client {
  /** Sends one request. */
  @Log()
  @Retry(3)
  public send(url: string): void {}

  /** Closes the client. */
  close(): void {}
}

/** Makes a client. */
export const make = (): Client => new Client();

/** Options of a client. */
export interface Options { retries: number }
"""


def test_typescript_tsdoc_above_decorators_and_export():
    d = _defs("typescript", "src/client.ts", TS)
    assert d["src/client.Client"].docstring.startswith("An HTTP client.")
    send = d["src/client.Client.send"]
    assert send.docstring == "Sends one request."
    assert send.decorators == ("Log()", "Retry(3)")
    assert d["src/client.Client.close"].docstring == "Closes the client."
    assert d["src/client.make"].docstring == "Makes a client."
    assert d["src/client.Options"].docstring == "Options of a client."


PY = '''\
"""Runners."""

import functools


class Runner:
    """Runs jobs."""

    @property
    def name(self) -> str:
        """The runner's name."""
        return "r"

    def __call__(self, job):
        """Run one job."""

    @functools.lru_cache()
    def plan(self):
        """The plan,
        cached."""


@functools.wraps(print)
def run(job):
    """Run ``job`` once."""
'''


def test_python_docstrings_under_decorators():
    d = _defs("python", "pkg/run.py", PY)
    assert d["pkg.run"].docstring == "Runners."
    assert d["pkg.run.Runner"].docstring == "Runs jobs."
    assert d["pkg.run.Runner.name"].docstring == "The runner's name."
    assert d["pkg.run.Runner.__call__"].docstring == "Run one job."
    assert d["pkg.run.Runner.plan"].docstring == "The plan,\ncached."
    assert d["pkg.run.run"].docstring == "Run ``job`` once."


GO = """\
// Package gin is a web framework.
package gin

// Version is the framework's version.
const Version = "v1"

// Modes.
const (
	// DebugMode is the debug mode.
	DebugMode = "debug"
	ReleaseMode = "release"
)

var (
	// ErrNotFound is returned when no route matches.
	ErrNotFound = errors.New("not found")
	internal    = 1
)

// Engine is the framework's instance.
//
// Create one with New.
type Engine struct{}

//go:noinline
// New returns a new Engine.
func New() *Engine { return nil }

func helper() {} // not documented

// Run starts the server.
func (e *Engine) Run() error { return nil }
"""


def test_go_comments_on_grouped_consts_vars_and_past_directives():
    d = _defs("go", "gin.go", GO)
    assert d["gin.Version"].docstring == "Version is the framework's version."
    assert d["gin.DebugMode"].docstring == "DebugMode is the debug mode."
    err = d["gin.ErrNotFound"]
    assert (err.kind, err.is_exported, err.docstring) == (
        "variable",
        True,
        "ErrNotFound is returned when no route matches.",
    )
    assert not d["gin.internal"].is_exported
    assert (
        d["gin.Engine"].docstring == "Engine is the framework's instance.\n\nCreate one with New."
    )
    assert d["gin.New"].docstring == "New returns a new Engine."
    assert d["gin.Engine.Run"].docstring == "Run starts the server."


JAVA = """\
package com.acme;

/**
 * A widget.
 */
@Deprecated
@SuppressWarnings("unchecked")
public class Widget {
    /** The largest size. */
    public static final int MAX = 10;

    /**
     * Resizes the widget.
     *
     * @param size the new size
     * @return this widget
     */
    @Override
    @Nullable
    public Widget resize(int size) { return this; }
}
"""


def test_java_javadoc_above_annotations():
    d = _defs("java", "src/com/acme/Widget.java", JAVA)
    assert d["com.acme.Widget"].docstring == "A widget."
    assert d["com.acme.Widget.MAX"].docstring == "The largest size."
    doc = parse_doc(d["com.acme.Widget.resize"].docstring)
    assert doc.description == "Resizes the widget."
    assert doc.params == (("size", "the new size"),) and doc.returns == "this widget"
    assert d["com.acme.Widget.resize"].decorators == ("Override", "Nullable")


KOTLIN = """\
package com.acme

/**
 * A widget.
 * @property name its name
 */
@Serializable
data class Widget(val name: String) {
    /** Renders the widget. */
    @JvmStatic
    fun render(): String = name
}

/** Makes a widget. */
@Suppress("unused")
fun make(): Widget = Widget("w")
"""


def test_kotlin_kdoc_above_annotations():
    d = _defs("kotlin", "src/Widget.kt", KOTLIN)
    assert d["com.acme.Widget"].docstring.startswith("A widget.")
    assert d["com.acme.Widget.render"].docstring == "Renders the widget."
    make = d["com.acme.make"]
    assert make.docstring == "Makes a widget."
    assert make.decorators == ('Suppress("unused")',)


CSHARP = """\
namespace Acme.Tools
{
    /// <summary>
    /// A tool. See <see cref="T:Acme.Other"/>.
    /// </summary>
    [Serializable]
    public class Tool
    {
        /// <summary>Runs with <paramref name="x"/>.</summary>
        /// <param name="x">the input</param>
        /// <returns>The result, or <see langword="null"/>.</returns>
        /// <exception cref="ArgumentException">when <c>x</c> is negative</exception>
        [Obsolete("use Run2")]
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public int Run(int x) { return x; }
    }
}
"""


def test_csharp_xml_docs_become_fields():
    d = _defs("csharp", "src/Tool.cs", CSHARP)
    assert parse_doc(d["Acme.Tools.Tool"].docstring).description == "A tool. See `Acme.Other`."
    doc = parse_doc(d["Acme.Tools.Tool.Run"].docstring)
    assert doc.description == "Runs with `x`."
    assert doc.params == (("x", "the input"),)
    assert doc.returns == "The result, or `null`."
    assert doc.raises == (("ArgumentException", "when `x` is negative"),)


RUBY = """\
# frozen_string_literal: true

require 'set'

module Sinatra
  # The base class of every app.
  #
  # Subclass it.
  class Base
    # Runs the app.
    # @param [Integer] port
    def run(port)
    end

    ##
    # Settings, once per class.
    def self.settings
    end

    attr_reader :name # the name
    def after; end
  end
end
"""


def test_ruby_comments_and_yard_tags():
    d = _defs("ruby", "lib/sinatra/base.rb", RUBY)
    assert d["Sinatra::Base"].docstring == "The base class of every app.\n\nSubclass it."
    doc = parse_doc(d["Sinatra::Base#run"].docstring)
    assert doc.description == "Runs the app." and doc.params == (("port", "(Integer)"),)
    assert d["Sinatra::Base#settings"].docstring == "Settings, once per class."
    assert d["Sinatra::Base#after"].docstring is None


PHP = """\
<?php

namespace App\\Http;

/**
 * A controller.
 */
#[Attribute]
final class Controller
{
    /**
     * Handles a request.
     * @param int $id the id
     */
    #[Route('/items')]
    public function handle(int $id): void {}
}

/** A helper. */
function helper() {}
"""


def test_php_docblocks_above_attributes():
    d = _defs("php", "src/Controller.php", PHP)
    assert d["App\\Http\\Controller"].docstring == "A controller."
    doc = parse_doc(d["App\\Http\\Controller::handle"].docstring)
    assert doc.description == "Handles a request."
    assert d["App\\Http\\helper"].docstring == "A helper."


C = """\
#include <stdio.h>

/**
 * Adds two numbers.
 * @param a the first
 */
static inline int add(int a, int b) { return a + b; }

/* Subtracts. */
int sub(int a, int b);

#define MAX 10 /* the limit */
int mul(int a, int b) { return a * b; }
"""


def test_c_block_comments_never_a_trailing_one():
    d = _defs("c", "src/math.c", C)
    doc = parse_doc(d["add"].docstring)
    assert doc.description == "Adds two numbers." and doc.params == (("a", "the first"),)
    assert d["sub"].docstring == "Subtracts."
    assert d["mul"].docstring is None


CPP = """\
#include <string>

namespace geo {

/// A shape.
template <typename T>
class Shape {
public:
    /// Its area.
    [[nodiscard]] virtual double area() const = 0;
    /** Its name. */
    std::string name() const;
};

//! Distance to the origin.
inline double dist(double a) { return a; }

}  // namespace geo
"""


def test_cpp_doxygen_comments_above_templates_and_attributes():
    d = _defs("cpp", "src/shape.hpp", CPP)
    assert d["geo::Shape"].docstring == "A shape."
    assert d["geo::Shape::area"].docstring == "Its area."
    assert d["geo::Shape::name"].docstring == "Its name."
    assert d["geo::dist"].docstring == "Distance to the origin."
