"""The report viewer widget (browser half: js/src/widgets/report/): the widget, its payload, its Plotly figures and
its links from layers to the nodes of a live designer."""
