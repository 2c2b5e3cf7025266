/**
 * The popped-out Channel Inspector's cards: a tile with its name above and its histogram and statistics below
 * (histograms.ts reads and draws them). The docked inspector shows bare tiles; the tile grid (tiles.ts) wraps each
 * tile in a card when the kernel sent histograms.
 */
import { element } from "../dom";
import { ChannelHistogram, channelName, channelStats, paintHistogram } from "./histograms";
import type { Layout } from "./paint";

export const HISTOGRAM_HEIGHT = 40; // px
const CARD_MIN_WIDTH = 168; // px: room for the statistics on two lines and ~5 px bars

/** A card around `tile` (its canvas, sized already) of `width` CSS px; its histogram canvas is `data-hist`. */
export function makeCard(layout: Layout, index: number, tile: HTMLCanvasElement, width: number, h: ChannelHistogram | null): HTMLElement {
  const card = element("div", "dld-ci-card");
  card.dataset.tile = String(index);
  const strips = layout.kind === "strips";
  const inner = strips ? CARD_MIN_WIDTH : Math.max(CARD_MIN_WIDTH, width);
  if (!strips) card.style.width = `${inner}px`;
  card.append(element("div", "dld-ci-card-name", channelName(layout, index)), tile);
  if (h) {
    const histogram = element("canvas", "dld-ci-hist");
    histogram.width = inner;
    histogram.height = HISTOGRAM_HEIGHT;
    histogram.style.width = `${inner}px`;
    histogram.style.height = `${HISTOGRAM_HEIGHT}px`;
    histogram.dataset.hist = String(index);
    card.append(histogram, element("div", "dld-ci-card-stats", channelStats(h)));
  }
  return card;
}

/** Paint the histogram of a card, if it has one, in the colours of the current map. */
export function paintCard(card: HTMLElement, h: ChannelHistogram | null, colour: (v: number) => [number, number, number]): void {
  const canvas = card.querySelector<HTMLCanvasElement>("canvas.dld-ci-hist");
  const ctx = canvas?.getContext("2d");
  if (!canvas || !ctx || !h) return;
  paintHistogram(ctx, canvas.width, canvas.height, h, colour);
}
