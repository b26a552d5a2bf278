import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './admin.css';
import './tables.css';
import './pills.css';
import './lists.css';

export const metadata: Metadata = { title: 'Admin · skillchat' };

export default function AdminLayout({ children }: { children: ReactNode }) {
  return <div className="admin">{children}</div>;
}
