/**
 * Notices at once that the kernel a tab's view lives in has stopped, whatever stopped it (issue 31, finding 6).
 *
 * Why more than the kernel's status: a kernel shut down behind the page's back (the REST API, another page, a
 * culler) leaves the websocket open, and JupyterLab shows "Idle" until its next poll of the server (measured here:
 * 8 s); a lost connection is retried for about two minutes before JupyterLab gives up. So the kernel's own goodbye
 * (ipykernel broadcasts its shutdown_reply on IOPub: 40 ms after the REST call here) ends the view, a lost
 * connection asks the server at once whether the kernel still exists, and a connection that comes back asks the
 * kernel whether it still holds the tab's view (it may have restarted while the page was away). A restart (kill -9,
 * then the server starts it again; or Restart Kernel) and a dead kernel come as statuses; the session ending or its
 * kernel replaced come from the session context.
 */
import { ISessionContext } from "@jupyterlab/apputils";
import { Kernel, KernelAPI, KernelMessage, Session } from "@jupyterlab/services";

import { causeOfStatus, StaleCause } from "./stale_tab";

/**
 * Call `stale` once, with its cause, when `kernel` (the one the view lives in) stops serving the view: dead,
 * restarted, shut down, or no longer the tab's kernel. `holdsView` asks the kernel whether it still has the view.
 * Returns the function that stops watching (the tab closes).
 */
export function watchKernel(
  context: ISessionContext,
  kernel: Kernel.IKernelConnection,
  holdsView: () => Promise<boolean>,
  stale: (cause: StaleCause) => void,
): () => void {
  let watching = true;
  let lost = false;
  const fire = (cause: StaleCause): void => {
    if (!watching) return;
    stop();
    stale(cause);
  };
  const onStatus = (_: Kernel.IKernelConnection, status: Kernel.Status): void => {
    const cause = causeOfStatus(status);
    if (cause) fire(cause);
  };
  const onConnection = (_: Kernel.IKernelConnection, status: Kernel.ConnectionStatus): void => {
    if (status === "connected") {
      if (!lost) return;
      lost = false;
      holdsView().then(
        (held) => held || fire("restarted"),
        () => fire("restarted"),
      );
      return;
    }
    lost = true;
    KernelAPI.getKernelModel(kernel.id, kernel.serverSettings).then(
      (model) => {
        if (!model) fire("shut-down");
        else if (model.execution_state === "dead") fire("died");
      },
      () => undefined, // the server is out of reach: the connection coming back (or not) tells
    );
  };
  const onIOPub = (_: Kernel.IKernelConnection, message: KernelMessage.IIOPubMessage): void => {
    if ((message.header.msg_type as string) !== "shutdown_reply") return;
    fire((message.content as { restart?: boolean }).restart ? "restarted" : "shut-down");
  };
  const onKernelChanged = (_: ISessionContext, change: Session.ISessionConnection.IKernelChangedArgs): void => {
    if (change.newValue?.id !== kernel.id) fire(change.newValue ? "replaced" : "shut-down");
  };
  const onSessionChanged = (_: ISessionContext, change: { newValue: Session.ISessionConnection | null }): void => {
    if (!change.newValue) fire("shut-down");
  };
  kernel.statusChanged.connect(onStatus);
  kernel.connectionStatusChanged.connect(onConnection);
  kernel.iopubMessage.connect(onIOPub);
  context.kernelChanged.connect(onKernelChanged);
  context.sessionChanged.connect(onSessionChanged);
  function stop(): void {
    watching = false;
    kernel.statusChanged.disconnect(onStatus);
    kernel.connectionStatusChanged.disconnect(onConnection);
    kernel.iopubMessage.disconnect(onIOPub);
    context.kernelChanged.disconnect(onKernelChanged);
    context.sessionChanged.disconnect(onSessionChanged);
  }
  // it may have stopped while the view was being shown
  const already = causeOfStatus(kernel.status);
  if (already) queueMicrotask(() => fire(already));
  else if (kernel.connectionStatus !== "connected") queueMicrotask(() => onConnection(kernel, kernel.connectionStatus));
  return stop;
}
