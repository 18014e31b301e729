import { relyingParty } from '../../src/identity/passkeys';

// The relying party of a passkey ceremony: CONSOLE_URL when set, else the page's own origin.
describe('relyingParty', () => {
  it('takes the RP ID and origin from CONSOLE_URL when it is set, whatever the request says', () => {
    expect(
      relyingParty('LeadIntake', 'https://console.example.com/base/', {
        origin: 'https://elsewhere.test',
        protocol: 'http',
        host: 'x:1',
      }),
    ).toEqual({ id: 'console.example.com', name: 'LeadIntake', origin: 'https://console.example.com' });
  });

  it("takes them from the request's Origin, else from its scheme and Host", () => {
    expect(relyingParty('S', null, { origin: 'http://localhost:8080', protocol: 'https', host: 'ignored' })).toEqual({
      id: 'localhost',
      name: 'S',
      origin: 'http://localhost:8080',
    });
    expect(relyingParty('S', null, { protocol: 'https', host: 'leads.example.com:8443' })).toEqual({
      id: 'leads.example.com',
      name: 'S',
      origin: 'https://leads.example.com:8443',
    });
  });
});
