/** The origin the built renderer is served from (see app-protocol.ts). */
export const appScheme = 'vault-desk'
export const appHost = 'app'
export const appStartUrl = `${appScheme}://${appHost}/`
