/**
 * The Channel Inspector's bar: the title (data, drawn as text), the colour map's Shift and Scale fields, Reset
 * Parameters, Pop out (the docked inspector of an analysis: the kernel opens the large view in a tab), and the
 * readout of the value under the pointer; the statistics line under it.
 */
import { element } from "../dom";

export interface NumberField {
  box: HTMLLabelElement;
  input: HTMLInputElement;
}

function numberField(label: string): NumberField {
  const box = element("label", "dld-ci-field", label + " ");
  const input = element("input", "dld-ci-input");
  input.type = "number";
  input.step = "any";
  box.appendChild(input);
  return { box, input };
}

/** A number as a field shows it: six significant digits, no trailing zeros. */
export function fieldText(v: number): string {
  return String(Number(v.toPrecision(6)));
}

/** A field's typed value, or null when it is not a finite number (the field then shows the model's value again). */
export function typedValue(text: string): number | null {
  const v = Number.parseFloat(text);
  return Number.isFinite(v) ? v : null;
}

export class Controls {
  readonly bar = element("div", "dld-ci-bar");
  readonly title = element("span", "dld-ci-title");
  readonly shift = numberField("Shift");
  readonly scale = numberField("Scale");
  readonly reset = element("button", "dld-ci-reset", "Reset");
  readonly popOut = element("button", "dld-ci-popout", "Pop out ↗");
  readonly readout = element("span", "dld-ci-readout");
  readonly note = element("div", "dld-ci-note");

  constructor() {
    this.reset.title = "Reset Parameters: the default shift and scale";
    this.popOut.title = "Open this inspector in a tab of its own: large tiles, each with its histogram and statistics";
    this.bar.append(this.title, this.shift.box, this.scale.box, this.reset, this.popOut, this.readout);
  }

  showMapping(shift: number, scale: number): void {
    this.shift.input.value = fieldText(shift);
    this.scale.input.value = fieldText(scale);
  }
}
