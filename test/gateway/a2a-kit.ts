/** Messages and parts as an A2A client sends them, for the gateway's A2A tests. */
import { Role, type Message, type Part } from '@a2a-js/sdk';

export const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

export function message(parts: Part[], extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random()}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}
export const send = (m: Message, skill = 'reader', returnImmediately = false) => ({
  tenant: '',
  message: m,
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: { skill },
});
export const textOf = (parts: Part[] | undefined): string =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
