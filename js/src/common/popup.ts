/**
 * Context menus that stay inside the window and go away when the user turns elsewhere.
 * `placePopup` is the placement rule (pure, unit-tested): open at the pointer, flip left / up when the menu would
 * cross the right / bottom edge, and clamp into the window when even the flipped side does not fit.
 * `showPopup` puts a menu on document.body (position: fixed, so no scrolling or clipping container cuts it) and
 * closes it on Escape, on a pointer press outside it, on any scroll outside it and when the window loses focus.
 */

export interface Size {
  width: number;
  height: number;
}

const MARGIN = 4; // px kept free between a menu and the window edge

/** One axis: `at` is the pointer, `size` the menu's extent, `room` the window's extent. */
function axis(at: number, size: number, room: number): number {
  if (at + size + MARGIN <= room) return at; // fits where the pointer is
  if (at - size >= MARGIN) return at - size; // flipped: ends at the pointer
  return Math.max(MARGIN, room - size - MARGIN); // neither side fits: as far in as the window allows
}

/** Top-left corner (window coordinates) for a menu of `menu` size opened at the pointer (x, y). */
export function placePopup(x: number, y: number, menu: Size, viewport: Size): { left: number; top: number } {
  return { left: axis(x, menu.width, viewport.width), top: axis(y, menu.height, viewport.height) };
}

/**
 * Show `menu` at the pointer (window coordinates) and keep it there until dismissed; `onClose` runs once, however
 * the menu went away. Returns the function that closes it (call it from the owner's cleanup too).
 */
export function showPopup(menu: HTMLElement, clientX: number, clientY: number, onClose: () => void = () => undefined): () => void {
  menu.style.position = "fixed";
  menu.style.zIndex = "10000"; // above JupyterLab's panels, as its own menus
  menu.style.left = "0px";
  menu.style.top = "0px";
  menu.style.visibility = "hidden"; // measured before it is seen
  menu.style.maxHeight = `${Math.max(100, window.innerHeight - 2 * MARGIN)}px`;
  menu.style.overflowY = "auto";
  document.body.appendChild(menu);
  const box = menu.getBoundingClientRect();
  const spot = placePopup(clientX, clientY, box, { width: window.innerWidth, height: window.innerHeight });
  menu.style.left = `${spot.left}px`;
  menu.style.top = `${spot.top}px`;
  menu.style.visibility = "";
  let open = true;
  const inside = (e: Event) => e.target instanceof Node && menu.contains(e.target);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation(); // Escape closes the menu only (not also the canvas selection or a dialog)
    close();
  };
  const onPointer = (e: Event) => {
    if (!inside(e)) close();
  };
  const onScroll = (e: Event) => {
    if (!inside(e)) close();
  };
  const onBlur = () => close();
  // Armed after the event that opened the menu has finished, so that event does not close it again.
  const timer = window.setTimeout(() => {
    document.addEventListener("pointerdown", onPointer, true);
    document.addEventListener("wheel", onScroll, true);
    document.addEventListener("scroll", onScroll, true);
    window.addEventListener("blur", onBlur);
  }, 0);
  document.addEventListener("keydown", onKey, true);
  function close(): void {
    if (!open) return;
    open = false;
    window.clearTimeout(timer);
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("pointerdown", onPointer, true);
    document.removeEventListener("wheel", onScroll, true);
    document.removeEventListener("scroll", onScroll, true);
    window.removeEventListener("blur", onBlur);
    menu.remove();
    onClose();
  }
  return close;
}
