/**
 * The scatter plot's drawing thread: draws full frames (full-frame.ts) and hands each back as an
 * ImageBitmap, which moves to the page without a copy. The page's thread meanwhile shows the last
 * one moved to the current view, so drawing 250,000 points never holds up a frame. Loaded from
 * the app's own origin, which the renderer's CSP allows (workers fall back to `script-src 'self'`).
 */
import { RasterCanvas, serveFrames, type FromRaster, type ToRaster } from './full-frame.ts'

interface WorkerScope {
  postMessage(message: FromRaster<ImageBitmap>, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<ToRaster>) => void) | null
}

const scope = globalThis as unknown as WorkerScope
const canvas = new RasterCanvas()

const answer = serveFrames(scope, (raster) => {
  const bitmap = canvas.paint(raster).transferToImageBitmap()
  return { image: bitmap, transfer: [bitmap] }
})
scope.onmessage = (event) => answer(event.data)
