// A passkey's answer in the shape @simplewebauthn/browser gives, that no credential signed.
export const forgedPasskey = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
  clientExtensionResults: {},
};
