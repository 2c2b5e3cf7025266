/** Where a Start Activity tab opens and on what (start_activity.ts registers the command): plain data, tested alone. */
import { PathExt } from "@jupyterlab/coreutils";

import type { TabRecord } from "./tab_messages";

export const ACTIVITIES = ["profile", "export", "sweep"] as const;

/** What a Start Activity tab opens on, from the command's arguments: the model given, else the .onnx selected in the
 * file browser (the context menu's item, or a convenience from the palette), else none; the activity asked (profile
 * unless it is one of ACTIVITIES); the kernel's folder, where typed paths start: the launcher's, else the model's,
 * else the one the file browser shows. */
export function activityTab(
  args: { path?: unknown; activity?: unknown; cwd?: unknown },
  selected: string | null,
  browserFolder: string,
): { record: TabRecord; folder: string } {
  const given = typeof args.path === "string" ? args.path : null;
  const file = given ?? (selected && selected.toLowerCase().endsWith(".onnx") ? selected : "");
  const asked = String(args.activity ?? "profile");
  const activity = (ACTIVITIES as readonly string[]).includes(asked) ? asked : "profile";
  const folder = typeof args.cwd === "string" ? args.cwd : file ? PathExt.dirname(file) : browserFolder;
  return { record: { kind: "activity", file, activity }, folder };
}
