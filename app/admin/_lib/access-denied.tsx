import type { AdminDenial } from './guard';

/** What an admin page shows instead of its content when the person is not an admin. */
export function AccessDenied({ denial }: { denial: AdminDenial }) {
  return (
    <main className="admin-main admin-main--narrow">
      <section className="card" data-testid="admin-denied">
        <h1>403 · Admins only</h1>
        <p>{denial.reason}</p>
        <p>
          <a href="/">Back to chat</a>
        </p>
      </section>
    </main>
  );
}
