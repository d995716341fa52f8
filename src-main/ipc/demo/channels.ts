export const demoChannels = ['demo.open'] as const
export type DemoChannel = (typeof demoChannels)[number]
