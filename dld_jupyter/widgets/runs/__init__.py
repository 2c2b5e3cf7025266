"""One run panel and one progress/cancel widget for every run a designer starts (issue 25).

`RunPanel` (panel.py): a form slot, a target chooser (targets.py), Run/Cancel, progress, the log and the
artifacts; the Profile form and the Export TensorRT Engine form plug into it. `RunProgress` (progress.py) is its
progress bar, phase and Cancel, shared with the Tools dialogs' job (widgets/tools/job.py), so profiling, engine
export, batch transforms and user tools show progress and cancel the same way, through runs with one interface
(`activities.run.Run`, `activities.thread_run.ThreadRun`).
"""
