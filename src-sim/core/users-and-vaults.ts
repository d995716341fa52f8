export type VaultRole = 'admin' | 'writer' | 'reader'

export interface SimUser {
  id: number
  firstName: string
  lastName: string
  email: string
  timeZone: string
  canWitnessEln: boolean
}

export interface SimVault {
  id: number
  name: string
  apiAccess: boolean
  deepLearning: boolean
  registrationSystem: boolean
  inventoryFields: boolean
  elnWitnessing: boolean
}
