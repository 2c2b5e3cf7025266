"""Wide result views that open in a tab of their own (frontdoor/results_tab.py): the divergence and diff tables."""
