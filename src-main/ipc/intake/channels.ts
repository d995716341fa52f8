export const intakeChannels = ['intake.check'] as const
export type IntakeChannel = (typeof intakeChannels)[number]
