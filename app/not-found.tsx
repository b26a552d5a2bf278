import Link from 'next/link';

export default function NotFound() {
  return (
    <main data-testid="not-found" style={{ padding: '4rem 2rem', maxWidth: 560, margin: '0 auto' }}>
      <h1>Not found</h1>
      <p>This chat or page does not exist. It may have been deleted.</p>
      <p>
        <Link href="/">Start a new chat</Link>
      </p>
    </main>
  );
}
