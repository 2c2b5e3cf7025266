/**
 * A designer fills its document tab (issue 21: "no page-level scrolling to find a part"): the tab's console has no
 * height to give a widget output, so this measures the room from the designer's top to the tab's bottom and sets
 * it as --dld-tab-height on the tab; dock.css (js/src/widgets/designer/) gives the designer that height, the canvas the
 * rest of it after the toolbar, and scrolls only inside the dock.
 */
export function fitDesignerToTab(tab: HTMLElement): () => void {
  let frame = 0;
  const fit = (): void => {
    frame = 0;
    const content = tab.querySelector<HTMLElement>(".jp-CodeConsole-content");
    const designer = content?.querySelector<HTMLElement>(".dld-designer");
    if (!content || !designer) return;
    const style = getComputedStyle(content);
    const top = designer.getBoundingClientRect().top - content.getBoundingClientRect().top + content.scrollTop;
    const room = content.clientHeight - top - parseFloat(style.paddingBottom || "0") - 4;
    const value = `${Math.max(240, Math.floor(room))}px`;
    if (tab.style.getPropertyValue("--dld-tab-height") !== value) tab.style.setProperty("--dld-tab-height", value);
  };
  const schedule = (): void => {
    if (!frame) frame = requestAnimationFrame(fit);
  };
  const resize = new ResizeObserver(schedule);
  resize.observe(tab);
  const added = new MutationObserver(schedule);
  added.observe(tab, { childList: true, subtree: true });
  return () => {
    resize.disconnect();
    added.disconnect();
    if (frame) cancelAnimationFrame(frame);
  };
}
