/**
 * Depictions are SVG text from the chemistry workers. The page's CSP lets images come only from
 * `data:` URLs, and an SVG shown through `<img>` cannot run scripts or reach the network, so this
 * is the one way a drawing reaches the screen (never `{@html}`).
 */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`
}
