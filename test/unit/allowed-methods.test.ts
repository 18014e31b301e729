import { AllowedMethods } from '../../src/shared/http/allowed-methods';

// The methods a path takes, for a 405's Allow: the routes that name the path most exactly.
describe('AllowedMethods', () => {
  const allowed = new AllowedMethods();
  allowed.record({ method: 'GET', url: '/portal/api/deliveries/:id' });
  allowed.record({ method: 'HEAD', url: '/portal/api/deliveries/:id' });
  allowed.record({ method: 'POST', url: '/portal/api/deliveries/:id/retry' });
  allowed.record({ method: 'POST', url: '/portal/api/deliveries/retry-dead' });
  allowed.record({ method: ['GET', 'PATCH'], url: '/portal/api/integration' });

  it('lists the methods of the routes a path matches', () => {
    expect(allowed.forPath('/portal/api/deliveries/dl-1')).toEqual(['GET', 'HEAD']);
    expect(allowed.forPath('/portal/api/integration')).toEqual(['GET', 'PATCH']);
    expect(allowed.forPath('/portal/api/nothing')).toEqual([]);
  });

  it('lets a fixed path win over a parameter: retry-dead is not a delivery', () => {
    expect(allowed.forPath('/portal/api/deliveries/retry-dead')).toEqual(['POST']);
  });
});
