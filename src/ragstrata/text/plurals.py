"""English plurals: the one rule set behind the analyzer's stemming and the glossary look-up.

Deliberately minimal (measured against Snowball English and against no stemming in
``bench/stemmer.py``): only plural endings are undone, so code vocabulary stays recognisable.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["light_stem", "singular_forms"]


@lru_cache(maxsize=32_768)
def singular_forms(word: str) -> tuple[str, ...]:
    """The singular forms a lower-case English plural may come from, likeliest first; empty
    when ``word`` does not look plural (under 3 letters, not ASCII letters, no ``-s``, ``-ss``).

    queries -> query; classes -> class; boxes -> box; files -> file, fil; caches -> cach, cache.
    """
    if len(word) < 3 or not word.isascii() or not word.isalpha():
        return ()
    if not word.endswith("s") or word.endswith("ss"):
        return ()
    forms: list[str] = []
    if word.endswith("ies") and len(word) > 5:
        forms.append(word[:-3] + "y")
    if word.endswith(("sses", "xes", "ches", "shes")):
        forms.append(word[:-2])
    forms.append(word[:-1])
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    return tuple(dict.fromkeys(forms))


@lru_cache(maxsize=32_768)
def light_stem(word: str) -> str:
    """The one form the analyzer indexes: the likeliest of :func:`singular_forms`.

    It never touches ``-ss``, ``-us``, ``-is`` words (class, status, analysis) nor words of
    four letters or fewer, so code vocabulary stays recognisable.
    """
    if len(word) <= 4 or word.endswith(("us", "is")):
        return word
    forms = singular_forms(word)
    return forms[0] if forms else word
