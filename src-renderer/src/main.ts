import { mount } from 'svelte'
import App from './App.svelte'
import { hostBridge, type VaultDeskBridge } from './lib/bridge.ts'
import { storageScopeMemory } from './lib/state/scope.svelte.ts'
import { Session } from './lib/state/session.svelte.ts'
import './styles/tokens.css'
import './styles/base.css'

const target = document.getElementById('app')
if (!target) throw new Error('index.html has no <div id="app"> to start Vault Desk in.')

let bridge: VaultDeskBridge | undefined
try {
  bridge = hostBridge()
} catch (error) {
  // Without its host the app can do nothing; say so on the page instead of showing a blank one.
  const message = document.createElement('p')
  message.className = 'fatal'
  message.textContent = error instanceof Error ? error.message : String(error)
  target.replaceChildren(message)
  console.error(error)
}

if (bridge)
  mount(App, {
    target,
    props: { session: new Session(bridge, storageScopeMemory(window.localStorage)) },
  })
