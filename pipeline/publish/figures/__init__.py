"""The figures ledger: every figure a page publishes, with a stable id, and what changed.

- ``tracked``: mart values carry where they come from (table, row key, column) into a render;
  the filters that print them record each as a figure with a marker in the text;
- ``anchors``: the markers become the anchor of the section each figure is in;
- ``ledger``: a page's figures as rows, the site's ledger as one CSV (its bytes name the build);
- ``baseline``: the previous published build (the build committed in git at HEAD, or the one in the
  publish directory);
- ``diff``: what moved, appeared, disappeared or changed class between the two;
- ``regressions``: the declared thresholds (``raw_data/reference/regression_thresholds.csv``)
  applied to the diff.
"""
