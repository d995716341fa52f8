/**
 * electron-vite's `?modulePath` import (see chem-worker.ts): the path of a separately built entry.
 * The same declaration ships in electron-vite/node; this copy keeps the main tsconfig free of
 * electron-vite's other ambient types.
 */
declare module '*?modulePath' {
  const path: string
  export default path
}
