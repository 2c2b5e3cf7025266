/** Background grid (seed "Layout", View > Show Grid): a CSS gradient on the stage that follows pan and zoom. */
import type { Core } from "cytoscape";

const STEP = 20; // model units

export function applyGrid(stage: HTMLElement, cy: Core | null, show: boolean): void {
  if (!show || !cy) {
    stage.style.backgroundImage = "";
    return;
  }
  const zoom = cy.zoom();
  const pan = cy.pan();
  const step = STEP * zoom;
  if (step < 4) {
    stage.style.backgroundImage = ""; // denser than pixels: noise, not help
    return;
  }
  stage.style.backgroundImage =
    "linear-gradient(to right, var(--dld-grid-line) 1px, transparent 1px)," +
    "linear-gradient(to bottom, var(--dld-grid-line) 1px, transparent 1px)";
  stage.style.backgroundSize = `${step}px ${step}px`;
  stage.style.backgroundPosition = `${pan.x % step}px ${pan.y % step}px`;
}
