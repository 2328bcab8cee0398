"""The words every stage speaks: it imports only the floor (``errors``, ``settings``, ``text``).

- ``rows``: the frozen rows of every layer and their content-derived ids (a contract: a change
  invalidates every index).
- ``texts``: what a row embeds and is searched by (a contract: a change re-embeds vectors).
- ``languages``: file extension -> language, test and doc detection.
- ``names``: symbol-name matching and its scores.
- ``values``: filters, scored rows, directions, manifest and catalog values.
- ``evidence``: ``Hit``, ``Evidence``, ``SearchResult``.
- ``answer``: ``Answer``, ``Citation``, ``AskResult``.
- ``question``: ``QuestionFacets``, what a question asks besides its plan.
- ``transport``: the one HTTP transport remote providers share (retries, rate limit, masking).
- ``version``: the package version.

Nothing is imported here, so ``import ragstrata.core`` stays free; import the module you need.
"""
