/** Tests only: a container of a fixed size in the page, for a cytoscape graph in jsdom (which lays nothing out). */
export function sizedContainer(width = 800, height = 600): HTMLDivElement {
  const container = document.createElement("div");
  Object.defineProperty(container, "clientWidth", { value: width });
  Object.defineProperty(container, "clientHeight", { value: height });
  container.style.padding = "0px";
  document.body.appendChild(container);
  return container;
}
