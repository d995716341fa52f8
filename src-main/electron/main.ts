import { app, BrowserWindow } from 'electron'
import path from 'node:path'

app.whenReady().then(() => {
  const window = new BrowserWindow({
    webPreferences: {
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  })
  void window.loadFile(path.join(import.meta.dirname, '../renderer/index.html'))
})
