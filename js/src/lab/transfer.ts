/**
 * A file for a kernel that cannot see it (a remote kernel: Enterprise Gateway, another host or container).
 *
 * Why: a designer tab asks its kernel to read the file from disk, so a 2 GB model never passes through the browser.
 * A remote kernel does not share the server's disk, and `dld.open('model.onnx')` failed there ("no such file").
 * Before opening, the tab asks the kernel whether it sees the file (same path, same size as the server reports);
 * when it does not, the tab reads the file from the Jupyter server in chunks (`/files/` with a byte Range; the
 * contents API's base64 model where ranges are not served) and sends each chunk to the kernel over one comm, at
 * most 4 MiB a message (tornado drops websocket messages over 10 MiB), waiting for each to be taken before the
 * next. The kernel writes them into a private temporary file under the file's name (dld_jupyter/lab/transfer.py)
 * and the tab opens that. Only the chunk in flight is held in the browser.
 */
import { URLExt } from "@jupyterlab/coreutils";
import { Kernel, ServerConnection } from "@jupyterlab/services";

export const TRANSFER_TARGET = "dld_jupyter.transfer";
export const CHUNK = 4 * 1024 * 1024;

interface TransferReply {
  kind: "reply";
  ok: boolean;
  path: string | null;
  error: string | null;
}

/** A Python string literal (JSON's escapes are Python's). */
const py = (text: string) => JSON.stringify(text);

async function expression(kernel: Kernel.IKernelConnection, code: string, value: string): Promise<string | null> {
  const reply = await kernel.requestExecute({ code, silent: true, store_history: false, user_expressions: { value } })
    .done;
  const content = reply.content as { status: string; user_expressions?: Record<string, { data?: Record<string, string> }> };
  return content.status === "ok" ? (content.user_expressions?.value?.data?.["text/plain"] ?? null) : null;
}

/** Reads a server file's bytes, a range at a time. */
export class ServerFile {
  private whole: Uint8Array | null = null;

  constructor(
    readonly path: string,
    private readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings(),
  ) {}

  private url(...parts: string[]): string {
    return URLExt.join(this.settings.baseUrl, ...parts, URLExt.encodeParts(this.path));
  }

  /** The file's size, from its contents-API model (metadata only). */
  async size(): Promise<number> {
    const response = await ServerConnection.makeRequest(`${this.url("api", "contents")}?content=0`, {}, this.settings);
    if (!response.ok) throw new Error(`the server cannot read ${this.path} (HTTP ${response.status})`);
    const model = (await response.json()) as { size?: number | null };
    if (typeof model.size !== "number") throw new Error(`the server gives no size for ${this.path}`);
    return model.size;
  }

  /** Bytes [start, end). */
  async read(start: number, end: number): Promise<Uint8Array> {
    if (this.whole) return this.whole.subarray(start, end);
    const response = await ServerConnection.makeRequest(
      this.url("files"),
      { headers: { Range: `bytes=${start}-${end - 1}` }, cache: "no-store" },
      this.settings,
    );
    if (response.status === 206) return new Uint8Array(await response.arrayBuffer());
    if (response.ok) this.whole = new Uint8Array(await response.arrayBuffer());
    else this.whole = await this.viaContents(); // a server without /files/ ranges
    return this.whole.subarray(start, end);
  }

  private async viaContents(): Promise<Uint8Array> {
    const url = `${this.url("api", "contents")}?type=file&format=base64&content=1`;
    const response = await ServerConnection.makeRequest(url, {}, this.settings);
    if (!response.ok) throw new Error(`the server cannot read ${this.path} (HTTP ${response.status})`);
    const text = atob(((await response.json()) as { content: string }).content.replace(/\s/g, ""));
    return Uint8Array.from(text, (c) => c.charCodeAt(0));
  }
}

/** Send `file` to the kernel in chunks; the kernel's path of the copy. */
export async function sendToKernel(kernel: Kernel.IKernelConnection, file: ServerFile, size: number): Promise<string> {
  const registered = await expression(
    kernel,
    "import dld_jupyter.lab.transfer as _dld_transfer\n_dld_transfer.register()",
    "'dld_jupyter.lab.transfer' in __import__('sys').modules",
  );
  if (registered !== "True") throw new Error("the kernel has no dld_jupyter to receive the file (pip install dld_jupyter there)");
  const comm = kernel.createComm(TRANSFER_TARGET);
  let answered: TransferReply | null = null;
  const reply = new Promise<TransferReply>((resolve) => {
    comm.onMsg = (msg) => resolve((answered = msg.content.data as unknown as TransferReply));
    comm.onClose = () => resolve(answered ?? { kind: "reply", ok: false, path: null, error: "the kernel closed the transfer" });
  });
  const name = file.path.split("/").pop() ?? file.path;
  await comm.open({ name, size }).done;
  for (let offset = 0; offset < size && answered === null; offset += CHUNK) {
    const bytes = await file.read(offset, Math.min(size, offset + CHUNK));
    const copy = bytes.slice(); // its own buffer: a subarray of the whole file would send the whole file
    await comm.send({ kind: "chunk", offset }, undefined, [copy.buffer]).done; // the kernel took it: send the next
  }
  if (answered === null) comm.send({ kind: "done" });
  const result = await reply;
  if (!result.ok || !result.path) throw new Error(`${file.path} could not reach the kernel: ${result.error}`);
  return result.path;
}

/**
 * The path the kernel opens for the server file `serverPath`: `kernelPath` when the kernel sees that file there,
 * else a copy sent to it through the server.
 */
export async function pathForKernel(kernel: Kernel.IKernelConnection, serverPath: string, kernelPath: string): Promise<string> {
  const file = new ServerFile(serverPath);
  let size: number;
  try {
    size = await file.size();
  } catch {
    return kernelPath; // the server cannot read it either: the kernel says why, in the tab
  }
  const sees = await expression(kernel, "", `__import__('dld_jupyter.lab.transfer').lab.transfer.sees(${py(kernelPath)}, ${size})`);
  if (sees === "True") return kernelPath;
  return sendToKernel(kernel, file, size);
}
