/**
 * The canvas's fast channel: a websocket to the server's relay (dld_jupyter/lab/channel_relay.py), which copies
 * frames to a Unix socket in the kernel (dld_jupyter/widgets/canvas/channel_socket.py). An edit and its reply skip the
 * Jupyter message path (parsed and re-signed twice in the server, queued behind the kernel's shell, two status
 * messages JupyterLab re-renders for): 3-6 ms where the comm takes 15-25 ms here. Where there is no relay (another
 * front end, a server without the extension) the socket is refused and the comm carries everything.
 *
 * A message is: u32 JSON length, JSON, u32 buffer count, u32 length of each buffer, the buffers (little-endian).
 *
 * A channel whose kernel socket is gone (the kernel ended, the widget closed) is accepted by the relay and closed at
 * once with GONE: a refused handshake reads in a browser like any network failure, and retrying a dead channel once a
 * second filled the server log with its URL (issue 31).
 */

/** The relay's close code for a channel that no longer exists (dld_jupyter/lab/channel_relay.py): never retry it. */
export const GONE = 4404;

export type Incoming = (content: Record<string, unknown>, buffers: DataView[]) => void;

export function encodeMessage(content: unknown, buffers: ArrayBuffer[] = []): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(content));
  const head = 8 + body.length + 4 * buffers.length;
  const out = new Uint8Array(head + buffers.reduce((n, b) => n + b.byteLength, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length, true);
  out.set(body, 4);
  view.setUint32(4 + body.length, buffers.length, true);
  let at = head;
  buffers.forEach((b, i) => {
    view.setUint32(8 + body.length + 4 * i, b.byteLength, true);
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  });
  return out;
}

export function decodeMessage(data: ArrayBuffer): { content: Record<string, unknown>; buffers: DataView[] } {
  const view = new DataView(data);
  const size = view.getUint32(0, true);
  const content = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, size))) as Record<string, unknown>;
  const count = view.getUint32(4 + size, true);
  let at = 8 + size + 4 * count;
  const buffers: DataView[] = [];
  for (let i = 0; i < count; i++) {
    const n = view.getUint32(8 + size + 4 * i, true);
    buffers.push(new DataView(data, at, n));
    at += n;
  }
  return { content, buffers };
}

/** The relay's websocket URL for a channel token, from JupyterLab's page config; null outside JupyterLab. */
export function relayUrl(token: string, doc: Document = document): string | null {
  const node = doc.getElementById("jupyter-config-data");
  if (!token || !node?.textContent) return null;
  let config: { baseUrl?: string; wsUrl?: string; token?: string };
  try {
    config = JSON.parse(node.textContent);
  } catch {
    return null;
  }
  const base = config.baseUrl ?? "/";
  const origin = config.wsUrl || `${doc.location.protocol === "https:" ? "wss:" : "ws:"}//${doc.location.host}${base}`;
  const url = `${origin.endsWith("/") ? origin : origin + "/"}dld/channel/${token}`;
  return config.token ? `${url}?token=${encodeURIComponent(config.token)}` : url;
}

export class FastChannel {
  private constructor(private readonly ws: WebSocket) {}

  /** Opens the websocket; "gone" when the relay says the channel no longer exists (GONE), null if it refuses it
   * otherwise (no extension, a network failure) or gives no answer in 5 s. `onClose` gets the close code. */
  static async open(
    url: string,
    onMessage: Incoming,
    onClose: (code: number) => void,
  ): Promise<FastChannel | "gone" | null> {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch {
      return null;
    }
    ws.binaryType = "arraybuffer";
    let closedWith = 0;
    const opened = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      ws.onopen = () => { clearTimeout(timer); resolve(true); };
      ws.onerror = () => { clearTimeout(timer); resolve(false); };
      ws.onclose = (event: CloseEvent) => { closedWith = event.code; clearTimeout(timer); resolve(false); };
    });
    if (!opened) {
      ws.onclose = null;
      ws.close();
      return closedWith === GONE ? "gone" : null;
    }
    ws.onmessage = (event: MessageEvent<ArrayBuffer>) => {
      const { content, buffers } = decodeMessage(event.data);
      onMessage(content, buffers);
    };
    ws.onerror = null;
    ws.onclose = (event: CloseEvent) => onClose(event.code);
    return new FastChannel(ws);
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(content: unknown, buffers: ArrayBuffer[] = []): void {
    this.ws.send(encodeMessage(content, buffers));
  }

  close(): void {
    this.ws.onclose = null;
    this.ws.close();
  }
}
