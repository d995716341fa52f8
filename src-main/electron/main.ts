import { startElectronApp } from './app.ts'

void startElectronApp({ bundleDir: import.meta.dirname })
