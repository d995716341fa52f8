export const registrationChannels = ['registration.form', 'registration.queue'] as const
export type RegistrationChannel = (typeof registrationChannels)[number]
