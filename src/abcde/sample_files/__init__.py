"""The files of a sample, in one place: what abcde writes and reads back (docs/method.md
§7.9, §12.2).

- :mod:`~abcde.sample_files.layout` — the names, the output claim, the digests, the
  manifest's seal and format version, the neutralising of CSVs for people;
- :mod:`~abcde.sample_files.manifest` — what a pair sample's manifest says (design,
  classes, fingerprint, lineage, sample id);
- :mod:`~abcde.sample_files.pairs` — a pair sample directory: draws, questions, manifest;
- :mod:`~abcde.sample_files.items` — an item sample file and its manifest;
- :mod:`~abcde.sample_files.exported` — a warehouse sample's tables, exported or not;
- :mod:`~abcde.sample_files.verdicts` — the judges' append-only verdict log.

Files abcde wrote are trusted through the manifest's digests and seal; an edited or
foreign one is refused in one sentence. Tables and files abcde did not write (a
warehouse's, a judgement file) are checked where a wrong number would follow.
"""
