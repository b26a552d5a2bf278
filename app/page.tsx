export default function Home() {
  return <main data-testid="home">skillchat</main>;
}
