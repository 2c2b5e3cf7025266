// Context menu placement (stays inside the window, flips near the edges) and dismissal (Escape, click-away,
// scroll, blur), on the real DOM of jsdom.
import { afterEach, describe, expect, it, vi } from "vitest";
import { placePopup, showPopup } from "./popup";

const WINDOW = { width: 1000, height: 700 };
const MENU = { width: 200, height: 300 };

describe("placePopup", () => {
  it("opens at the pointer when the menu fits", () => {
    expect(placePopup(100, 50, MENU, WINDOW)).toEqual({ left: 100, top: 50 });
  });
  it("flips left near the right edge and up near the bottom edge", () => {
    expect(placePopup(950, 600, MENU, WINDOW)).toEqual({ left: 750, top: 300 });
  });
  it("flips on one axis only when only that axis overflows", () => {
    expect(placePopup(950, 10, MENU, WINDOW)).toEqual({ left: 750, top: 10 });
    expect(placePopup(10, 690, MENU, WINDOW)).toEqual({ left: 10, top: 390 });
  });
  it("clamps into the window when neither side of the pointer has room", () => {
    const tall = { width: 200, height: 650 };
    expect(placePopup(500, 350, tall, WINDOW)).toEqual({ left: 500, top: 46 });
    const huge = { width: 1200, height: 900 };
    expect(placePopup(500, 350, huge, WINDOW)).toEqual({ left: 4, top: 4 });
  });
  it("never places a fitting menu across an edge", () => {
    for (let x = 0; x <= WINDOW.width; x += 37) {
      for (let y = 0; y <= WINDOW.height; y += 29) {
        const { left, top } = placePopup(x, y, MENU, WINDOW);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(top).toBeGreaterThanOrEqual(0);
        expect(left + MENU.width).toBeLessThanOrEqual(WINDOW.width);
        expect(top + MENU.height).toBeLessThanOrEqual(WINDOW.height);
      }
    }
  });
});

describe("showPopup", () => {
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  function open(): { menu: HTMLElement; closed: () => number; close: () => void } {
    vi.useFakeTimers();
    const menu = document.createElement("div");
    let count = 0;
    const close = showPopup(menu, 10, 10, () => count++);
    vi.runAllTimers(); // the outside listeners arm after the opening event
    return { menu, closed: () => count, close };
  }

  it("closes on Escape and stops the key there", () => {
    const { menu, closed } = open();
    const other = vi.fn();
    document.body.addEventListener("keydown", other);
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(menu.isConnected).toBe(true);
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(menu.isConnected).toBe(false);
    expect(closed()).toBe(1);
    expect(other).toHaveBeenCalledTimes(1); // Enter reached the page, Escape did not
  });

  it("closes on a pointer press outside, not inside", () => {
    const { menu, closed } = open();
    const row = document.createElement("div");
    menu.append(row);
    row.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(menu.isConnected).toBe(true);
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(menu.isConnected).toBe(false);
    expect(closed()).toBe(1);
  });

  it("closes on scroll and on window blur", () => {
    const first = open();
    document.dispatchEvent(new Event("scroll"));
    expect(first.menu.isConnected).toBe(false);
    const second = open();
    window.dispatchEvent(new Event("blur"));
    expect(second.menu.isConnected).toBe(false);
  });

  it("leaves no listener behind and reports its close once", () => {
    const added = vi.spyOn(document, "addEventListener");
    const removed = vi.spyOn(document, "removeEventListener");
    const { close, closed } = open();
    close();
    close();
    expect(closed()).toBe(1);
    expect(removed.mock.calls.length).toBe(added.mock.calls.length);
    added.mockRestore();
    removed.mockRestore();
  });

  it("is placed inside the window", () => {
    vi.useFakeTimers();
    const menu = document.createElement("div");
    menu.getBoundingClientRect = () => ({ width: 200, height: 300 }) as DOMRect;
    showPopup(menu, window.innerWidth - 5, window.innerHeight - 5);
    expect(parseFloat(menu.style.left)).toBe(window.innerWidth - 5 - 200);
    expect(parseFloat(menu.style.top)).toBe(window.innerHeight - 5 - 300);
    expect(menu.style.position).toBe("fixed");
  });
});
