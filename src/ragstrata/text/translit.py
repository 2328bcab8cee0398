"""Russian -> Latin transliteration for programming loanwords (редирект -> redirect).

Russian developers write English terms in Cyrillic ("хендлер", "сериализация", "роутер").
A standard transliteration ("khendler") rarely matches code, so this one reverses how the
words were *borrowed*:

* suffix rules on the lemma: -изация -> -ization, -ификация -> -ification / -ication,
  -ация -> -ation, -ция -> -tion, -ссия -> -ssion, -ия -> -y, -изм -> -ism, -инг -> -ing,
  -ер -> -er, -ор -> -or, -ировать -> -e / -ate, -ейс -> -ace, -айл -> -ile, -ейт -> -ate, ...
* letter clusters with weighted alternatives: к -> c / k / ck by context, кс -> x,
  дж -> j / g, х -> h, е / э -> e / a (хендлер -> handler), ау / оу -> au / ou (роутер),
  initial аут -> auth / out, ап -> ap / up (апдейт -> update), ...

``transliterate_candidates`` enumerates spellings cheapest first (a k-best search over the
alternatives, capped), ``transliterate`` is the cheapest one. The retrieval stage keeps only
candidates that occur in the repository's vocabulary, so a few extra spellings are harmless.

``looks_like_loanword`` decides which words deserve candidates at all, so native words
such as "размер" do not yield "razmer". It takes a lower-case Cyrillic lemma of at least 4
letters and says yes when the word has

* a *strong* borrowed ending: -ция, -сия, -изм, -инг, -мент, -ировать, -изация, -ейс, -айл,
  -ойнт, -аут, -кс, or a final consonant pair -нд, -рд, -лд, -пт, -фт, -кт, -нг; or
* a *medium* ending (a consonant but ч/ш/щ/ж + -ер, -тор, -сор: сервер, парсер, коннектор) and no native
  prefix (вы-, раз-, при-, пере-, под-, от-, за-, на-, по-, про-, со-, из-, об-, ...), which
  rules out размер, пример, набор; or
* no adjective ending (-ый, -ий, -ая, -ие, ...) and letters or clusters rare in native words
  (ф, э, дж, нг, кс, йн, йт but not in -йти verbs, ью, оу / ау inside a word); or
* a *weak* ending (-ет, -ит, -ап, -ип, -оп, -ия, -ат, -ент, -ант, -ис, -ор, -он), at least
  5 letters and no native prefix (here до- counts too: договор).

Native agent nouns in -тель and words after ч/ш + -ер (вечер) are deliberately left out.
"""

from __future__ import annotations

import heapq
import re
from functools import lru_cache

__all__ = ["looks_like_loanword", "transliterate", "transliterate_candidates"]

_MAX_CANDIDATES = 8
_MAX_COST = 1.6

Alts = tuple[tuple[str, float], ...]

# Lemma endings, longest first; each with (english ending, cost) alternatives.
_SUFFIXES: tuple[tuple[str, Alts], ...] = (
    ("кэш", (("cache", 0.0), ("kesh", 0.3), ("cash", 0.5))),
    ("кеш", (("cache", 0.0), ("kesh", 0.3), ("cash", 0.5))),
    ("ифицировать", (("ify", 0.0),)),
    ("изировать", (("ize", 0.0), ("ise", 0.5))),
    ("ифицирование", (("ification", 0.0),)),
    ("ирование", (("ing", 0.0), ("ation", 0.3))),
    ("ификация", (("ification", 0.0), ("ication", 0.3))),
    ("изовать", (("ize", 0.0), ("ise", 0.5))),
    ("ировать", (("", 0.0), ("e", 0.1), ("ate", 0.3))),
    ("ировка", (("ing", 0.0),)),
    ("изация", (("ization", 0.0), ("isation", 0.5))),
    ("ация", (("ation", 0.0),)),
    ("енция", (("ence", 0.0), ("ention", 0.5))),
    ("анция", (("ance", 0.0), ("antion", 0.5))),
    ("ссия", (("ssion", 0.0),)),
    ("ция", (("tion", 0.0), ("sion", 0.6))),
    ("сия", (("sion", 0.0), ("sia", 0.5))),
    ("зия", (("sion", 0.0), ("sia", 0.5))),
    ("ойнт", (("oint", 0.0),)),
    ("инг", (("ing", 0.0),)),
    ("изм", (("ism", 0.0),)),
    ("ейс", (("ace", 0.0), ("ase", 0.4))),
    ("ейт", (("ate", 0.0), ("eit", 0.6))),
    ("айл", (("ile", 0.0),)),
    ("айт", (("ite", 0.0), ("ight", 0.3))),
    ("айс", (("ice", 0.0), ("ise", 0.4))),  # слайс -> slice, девайс -> device
    ("айз", (("ize", 0.0), ("ise", 0.4))),  # сайз -> size
    ("айп", (("ipe", 0.0), ("ype", 0.3))),  # пайп -> pipe, тайп -> type
    ("айн", (("ine", 0.0), ("ain", 0.4))),
    ("ейн", (("ain", 0.0), ("ane", 0.4))),
    ("аут", (("out", 0.0),)),
    ("эш", (("esh", 0.0), ("ash", 0.3), ("ache", 0.4))),
    ("еш", (("esh", 0.0), ("ash", 0.3), ("ache", 0.4))),
    ("ия", (("y", 0.0), ("ia", 0.2), ("ion", 0.6))),
    ("ер", (("er", 0.0), ("or", 0.5))),
    ("эр", (("er", 0.0),)),
    ("ор", (("or", 0.0), ("er", 0.4))),
    ("ить", (("", 0.0), ("e", 0.2))),
    ("ать", (("", 0.0),)),
    ("ис", (("is", 0.0), ("ice", 0.2))),
    ("кс", (("x", 0.0), ("ks", 0.5))),
    ("ж", (("ge", 0.0), ("zh", 0.5))),
)

# Word-initial clusters.
_INITIAL: tuple[tuple[str, Alts], ...] = (
    ("аут", (("auth", 0.0), ("out", 0.2), ("aut", 0.4))),
    ("ап", (("ap", 0.0), ("up", 0.1))),
    ("э", (("e", 0.0), ("a", 0.3))),
    ("ю", (("u", 0.0), ("yu", 0.5))),
)

_SOFT_AFTER_K = set("еиэйыья")

# Clusters (longest first) and single letters inside a word.
_CLUSTERS: dict[str, Alts] = {
    "дж": (("j", 0.0), ("g", 0.2), ("dg", 0.5)),
    "кс": (("x", 0.0), ("ks", 0.3), ("cs", 0.6)),
    "сс": (("ss", 0.0), ("cc", 0.7)),
    "ау": (("au", 0.0), ("ou", 0.3), ("ow", 0.5)),
    "оу": (("ou", 0.0), ("ow", 0.3), ("o", 0.5)),
    "айм": (("ime", 0.0), ("aim", 0.4)),
    "ай": (("i", 0.0), ("ai", 0.1), ("y", 0.5)),
    "ей": (("ey", 0.0), ("a", 0.3), ("ei", 0.5)),
    # э after a consonant is mostly English a (бэкап -> backup, фидбэк -> feedback, хэш)
    "эк": (("ac", 0.0), ("ack", 0.1), ("ec", 0.3), ("eck", 0.4)),
    "ой": (("oi", 0.0), ("oy", 0.2)),
    "ью": (("u", 0.0), ("iu", 0.4), ("yu", 0.5)),
    "тч": (("tch", 0.0),),
}
_LETTERS: dict[str, Alts] = {
    "а": (("a", 0.0), ("u", 0.6)),  # кластер -> cluster, бандл -> bundle
    "б": (("b", 0.0),),
    "в": (("v", 0.0), ("w", 0.5)),
    "г": (("g", 0.0),),
    "д": (("d", 0.0),),
    "е": (("e", 0.0), ("a", 0.5)),
    "ё": (("e", 0.0), ("o", 0.4)),
    "ж": (("zh", 0.0), ("g", 0.2), ("j", 0.3)),
    "з": (("z", 0.0), ("s", 0.4)),
    "и": (("i", 0.0), ("e", 0.6), ("y", 0.6)),
    "й": (("y", 0.0), ("i", 0.2)),
    "л": (("l", 0.0),),
    "м": (("m", 0.0),),
    "н": (("n", 0.0),),
    "о": (("o", 0.0),),
    "п": (("p", 0.0),),
    "р": (("r", 0.0),),
    "с": (("s", 0.0), ("c", 0.6)),
    "т": (("t", 0.0),),
    "у": (("u", 0.0), ("oo", 0.6), ("o", 0.7)),
    "ф": (("f", 0.0), ("ph", 0.6)),
    "х": (("h", 0.0), ("kh", 0.6)),
    "ц": (("c", 0.0), ("ts", 0.4), ("z", 0.5)),
    "ч": (("ch", 0.0),),
    "ш": (("sh", 0.0),),
    "щ": (("sh", 0.0), ("sch", 0.5)),
    "ъ": (("", 0.0),),
    "ы": (("y", 0.0), ("i", 0.3)),
    "ь": (("", 0.0),),
    "э": (("e", 0.0), ("a", 0.3)),
    "ю": (("u", 0.0), ("yu", 0.5), ("iu", 0.8)),
    "я": (("ya", 0.0), ("ia", 0.3), ("a", 0.6)),
}
_K_HARD: Alts = (("c", 0.0), ("k", 0.4))  # клиент, конфиг, редирект
_K_SOFT: Alts = (("k", 0.0), ("ck", 0.4), ("c", 0.5))  # токен, тикет -> ticket, докер
_CLUSTER_KEYS = sorted(_CLUSTERS, key=len, reverse=True)

_CYRILLIC_WORD = re.compile(r"^[а-яё]+(?:-[а-яё]+)*$")
_ADJECTIVE_END = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие)$")
_STRONG_END = re.compile(
    r"(?:ция|сия|зия|изм|инг|мент|ёр|эр|ировать|изовать|"
    r"ирование|ировка|изация|ейс|ейт|айл|айт|айн|ейн|ойнт|аут|кс|нд|рд|лд|пт|фт|кт|нг)$"
)
_MEDIUM_END = re.compile(r"(?:[бвгдзклмнпрстфхц]ер|тор|сор)$")
_STRONG_LETTERS = re.compile(r"ф|э|дж|нг|кс|йн|йт(?!и$)|ью|.оу|.ау")  # not пройти, найти
_WEAK_END = re.compile(r"(?:ет|ит|ап|ип|оп|ия|ат|ент|ант|ис|ор|он)$")
_NATIVE_PREFIX = re.compile(
    r"^(?:вы|раз|рас|при|пре|пред|пере|под|от|за|на|по|про|со|вз|вс|без|бес|из|ис|об|воз|вос)"
)


@lru_cache(maxsize=16384)
def looks_like_loanword(lemma: str) -> bool:
    """True when the lower-case Cyrillic ``lemma`` looks borrowed (see the module docstring)."""
    w = lemma.lower()
    if len(w) < 4 or not _CYRILLIC_WORD.match(w):
        return False
    native_prefix = _NATIVE_PREFIX.match(w) is not None
    if _STRONG_END.search(w):
        return True
    if _MEDIUM_END.search(w):
        return not native_prefix
    if _ADJECTIVE_END.search(w):
        return False
    if _STRONG_LETTERS.search(w):
        return True
    weak_prefix = native_prefix or w.startswith("до")  # договор (докер keeps its -ер above)
    return len(w) >= 5 and _WEAK_END.search(w) is not None and not weak_prefix


def _segments(word: str) -> list[Alts]:
    """Split ``word`` into segments, each with weighted Latin alternatives."""
    segs: list[Alts] = []
    tail: Alts | None = None
    stem = word
    for suffix, alts in _SUFFIXES:
        if word.endswith(suffix) and (len(word) > len(suffix) or len(suffix) >= 3):
            stem, tail = word[: -len(suffix)], alts
            break
    i = 0
    for prefix, alts in _INITIAL:
        if stem.startswith(prefix) and len(stem) > len(prefix):
            segs.append(alts)
            i = len(prefix)
            break
    while i < len(stem):
        for cluster in _CLUSTER_KEYS:
            if stem.startswith(cluster, i):
                segs.append(_CLUSTERS[cluster])
                i += len(cluster)
                break
        else:
            ch = stem[i]
            if ch == "к":
                nxt = word[i + 1] if i + 1 < len(word) else ""  # look past the suffix cut
                segs.append(_K_SOFT if (nxt in _SOFT_AFTER_K or not nxt) else _K_HARD)
            elif ch in _LETTERS:
                segs.append(_LETTERS[ch])
            elif ch == "-":
                segs.append((("-", 0.0), ("", 0.1)))
            else:
                segs.append(((ch, 0.0),))
            i += 1
    if tail is not None:
        segs.append(tail)
    return segs


_DOUBLE_BEFORE_ING = re.compile(r"(?<![aeiouy])([aeiouy])([bdglmnprt])ing$")
# English drops a stem's silent e before an ending beginning with a vowel: the cluster spelled
# "time" with -ер, -инг is "timer", "timing" (таймер, тайминг), not "timeer", "timeing"
_SILENT_E = re.compile(r"(?<=[^aeiouy][aeiouy][bcdgklmnprstvz])e(?=(?:er|or|ing|ed)$)")


@lru_cache(maxsize=16384)
def transliterate_candidates(word: str) -> tuple[str, ...]:
    """Up to 8 Latin spellings of a Russian (loan)word, most plausible first.

    ``"хендлер"`` -> ``("hendler", "handler", ...)``; ``"редирект"`` -> ``("redirect", ...)``.
    Non-Cyrillic input is returned lower-cased as the single candidate.
    """
    w = word.lower().strip()
    if not w:
        return ()
    if not re.search(r"[а-яё]", w):
        return (w,)
    segs = _segments(w)
    start = (0,) * len(segs)
    heap: list[tuple[float, tuple[int, ...]]] = [(0.0, start)]
    seen = {start}
    out: dict[str, None] = {}
    while heap and len(out) < _MAX_CANDIDATES:
        cost, idx = heapq.heappop(heap)
        if cost > _MAX_COST:
            break
        cand = "".join(segs[k][j][0] for k, j in enumerate(idx))
        out.setdefault(cand, None)
        if _SILENT_E.search(cand):
            out.setdefault(_SILENT_E.sub("", cand), None)
        m = _DOUBLE_BEFORE_ING.search(cand)
        if m:  # логирование -> loging -> logging
            out.setdefault(f"{cand[: m.start(2)]}{m.group(2)}{cand[m.start(2) :]}", None)
        for k, j in enumerate(idx):
            if j + 1 < len(segs[k]):
                nxt = (*idx[:k], j + 1, *idx[k + 1 :])
                if nxt not in seen:
                    seen.add(nxt)
                    delta = segs[k][j + 1][1] - segs[k][j][1]
                    heapq.heappush(heap, (cost + delta, nxt))
    return tuple(out)


def transliterate(word: str) -> str:
    """The most plausible Latin spelling of ``word`` (first of ``transliterate_candidates``)."""
    cands = transliterate_candidates(word)
    return cands[0] if cands else ""
