/** A conversation store that never answers a look (each `enterConversation` resolves with nothing), and counts the looks. */
export function silentConversations(): { store: { enterConversation: () => Promise<undefined> }; looks: () => number } {
  let looks = 0;
  return {
    store: {
      enterConversation: async () => {
        looks += 1;
        return undefined;
      },
    },
    looks: () => looks,
  };
}
