import type { AdminDenial } from './guard';

/** What an admin page shows instead of its content when the access check refuses (rate limit, disabled admin). */
export function AccessDenied({ denial }: { denial: AdminDenial }) {
  return (
    <main className="admin-main admin-main--narrow">
      <section className="card" data-testid="admin-denied">
        <h1>Admin unavailable</h1>
        <p>{denial.reason}</p>
      </section>
    </main>
  );
}
