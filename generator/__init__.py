"""Generator of the nubes.cloud service modules and docs from the deck-api catalogue (P1-P4, P46, P47).

Pipeline: ``fetch`` (API -> ``specs/<name>.yml``), ``render`` (specs -> modules, docs, meta/runtime.yml),
``check`` (drift: re-fetch/re-render in memory and compare with the files on disk).
"""
