// "Compare with…": in JupyterLab the page's picker answers the dld-pick-reports event; elsewhere (no answer) a path
// box opens in place. Either way the chosen paths go to the kernel as one compare_with request.
import { afterEach, describe, expect, it } from "vitest";
import { Listeners } from "../../common/listeners";
import { compareWithButton, PICK_EVENT, PickDetail } from "./compare_with";
import type { ViewContext } from "./context";

function context(ok = true): { ctx: ViewContext; requests: Array<[string, Record<string, unknown>]>; notices: string[] } {
  const requests: Array<[string, Record<string, unknown>]> = [];
  const notices: string[] = [];
  const ctx = {
    listeners: new Listeners((error) => { throw error; }),
    request: async (action: string, args: Record<string, unknown>) => {
      requests.push([action, args]);
      return { request: 1, ok, data: { reports: 2 }, error: ok ? null : "compare with x.json: not a report" };
    },
    notice: (text: string) => notices.push(text),
  } as unknown as ViewContext;
  return { ctx, requests, notices };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => document.body.replaceChildren());

describe("Compare with…", () => {
  it("opens a path box where no page picker answers, and sends the typed paths", async () => {
    const { ctx, requests } = context();
    const bar = compareWithButton(ctx);
    document.body.append(bar);
    const form = bar.querySelector("form")!;
    expect(form.hidden).toBe(true);
    bar.querySelector<HTMLButtonElement>(".dld-r-compare-with")!.click();
    expect(form.hidden).toBe(false);
    bar.querySelector<HTMLInputElement>(".dld-r-compare-path")!.value = " a.dld-report.json , b.dld-report.json ";
    form.dispatchEvent(new Event("submit", { cancelable: true }));
    await flush();
    expect(requests).toEqual([["compare_with", { paths: ["a.dld-report.json", "b.dld-report.json"] }]]);
    expect(form.hidden).toBe(true);
  });

  it("uses the page's picker when one answers, and shows the kernel's refusal", async () => {
    const { ctx, requests, notices } = context(false);
    const picker = (event: Event) => {
      event.preventDefault();
      (event as CustomEvent<PickDetail>).detail.respond(["../other/x.json"]);
    };
    document.body.addEventListener(PICK_EVENT, picker);
    const bar = compareWithButton(ctx);
    document.body.append(bar);
    bar.querySelector<HTMLButtonElement>(".dld-r-compare-with")!.click();
    await flush();
    await flush();
    document.body.removeEventListener(PICK_EVENT, picker);
    expect(bar.querySelector("form")!.hidden).toBe(true); // no path box: the picker answered
    expect(requests).toEqual([["compare_with", { paths: ["../other/x.json"] }]]);
    expect(notices).toEqual(["compare with x.json: not a report"]);
  });

  it("sends nothing when the picker is cancelled", async () => {
    const { ctx, requests } = context();
    const picker = (event: Event) => {
      event.preventDefault();
      (event as CustomEvent<PickDetail>).detail.respond(null);
    };
    document.body.addEventListener(PICK_EVENT, picker);
    const bar = compareWithButton(ctx);
    document.body.append(bar);
    bar.querySelector<HTMLButtonElement>(".dld-r-compare-with")!.click();
    await flush();
    document.body.removeEventListener(PICK_EVENT, picker);
    expect(requests).toEqual([]);
  });
});
