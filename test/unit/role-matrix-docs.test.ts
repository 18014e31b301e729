import { PERMISSIONS, ROLES, rolesWith } from '../../src/identity/roles';
import { docsMatrix } from '../support/role-docs';

// The matrix docs/managers.md publishes is the one the service enforces (roles.ts); which routes each
// permission covers is checked against the OpenAPI document by manager-role-matrix.test.ts.
describe('the role matrix in docs/managers.md', () => {
  const docs = docsMatrix();

  it('has a column for each role, in order', () => {
    expect(docs.roles).toEqual([...ROLES]);
  });

  it('has a row for each permission, in order', () => {
    expect(docs.rows.map((r) => r.permission)).toEqual([...PERMISSIONS]);
  });

  it('marks exactly the roles that have each permission', () => {
    for (const row of docs.rows)
      expect({ permission: row.permission, roles: row.roles }).toEqual({
        permission: row.permission,
        roles: rolesWith(row.permission as never),
      });
  });

  it('names at least one route per permission', () => {
    for (const row of docs.rows)
      expect({ permission: row.permission, routes: row.routes.length > 0 }).toEqual({
        permission: row.permission,
        routes: true,
      });
  });
});
