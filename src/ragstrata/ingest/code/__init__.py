"""Code structure with tree-sitter: files (C0), definitions (C1), relations (C2), chunks (C3).

Qualified names (``DefinitionRow.symbol``), one convention per language:

==========  ==========================================================================
python      ``pkg.module.Class.method`` (module from the path; ``src/`` dropped)
javascript  ``path/to/file.Class.method`` (the path without its extension; ts/tsx alike)
go          ``package.Type.Method`` (the ``package`` clause name)
java        ``com.example.pkg.Class.method`` (the ``package`` declaration)
kotlin      ``org.example.pkg.Class.method``
csharp      ``Namespace.Inner.Class.Method``
rust        ``crate::module::Type::method`` (the module from the path under ``src/``)
c           ``function`` / ``struct`` names as written (C has no namespaces)
cpp         ``ns::Class::method``
ruby        ``Module::Class#method``
php         ``App\\Namespace\\Class::method``
==========  ==========================================================================
"""

from ragstrata.ingest.code.extract import extract_code
from ragstrata.ingest.code.parsers import supported_languages

__all__ = ["extract_code", "supported_languages"]
