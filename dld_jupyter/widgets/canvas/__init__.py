"""The model canvas widget (browser half: js/src/widgets/canvas/): the widget, what it shows of a document, the
intents it answers, its payloads and its fast channel."""
